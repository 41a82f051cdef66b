// A grid's stop axes (SPEC §5b) as the device reads them (built by build_tables beside the
// grid's other tables; decoded by stop_eval.cuh).
#pragma once

namespace wfod::cuda {

// A grid's stop axes on the device. The grid tables (GridTables) hold the grid without them
// (build_tables leaves them out of the radix), so decode_combo reads the id with its stop
// digits taken out: id = f + stride * (stop digits + stops * rest), the reduced id f + stride
// * rest.
struct StopTables {
  unsigned long long stride = 1;            // product of the family's axis sizes
  unsigned long long radix[3] = {1, 1, 1};  // stop_loss, take_profit, trailing_stop sizes
  const double* values = nullptr;           // the three axes' values, one after the other
  const double* entry_open = nullptr;       // the bars' opens with fill next_open, else null
};

}  // namespace wfod::cuda
