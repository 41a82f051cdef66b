// sd_notify wrapper: systemd learns the truth (loading, serving, stopping) where it runs us.

#include "notify.hpp"

#ifdef WFOD_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

namespace wfod::daemon {

void notify(const std::string& state) {
#ifdef WFOD_HAVE_SYSTEMD
  // Failure to notify is not an error of ours: outside systemd there is no socket.
  (void)sd_notify(0, state.c_str());
#else
  (void)state;
#endif
}

}  // namespace wfod::daemon
