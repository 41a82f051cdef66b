// Large, freshly allocated buffers on transparent huge pages where the kernel offers them
// (THP "madvise" mode): the first touch of fresh memory costs one page fault per page, and
// on virtual machines a 4 KiB fault can cost tens of microseconds (49 MB of block Summaries:
// ~0.35 s measured on the 2-core VM, ~0.02-0.1 s on 2 MiB pages). Advice only: contents and
// results are unchanged, and where huge pages are off nothing changes.
#pragma once

#include <cstddef>
#include <vector>

namespace wfod {

// madvise(MADV_HUGEPAGE) on the 2 MiB-aligned part of [p, p + bytes); a no-op below 4 MiB
// and off Linux.
void advise_huge_pages(void* p, size_t bytes);

// v.resize(n) for an empty v, its storage advised before the elements are first written.
template <class T>
void resize_on_huge_pages(std::vector<T>& v, size_t n) {
  v.reserve(n);  // allocates without touching
  advise_huge_pages(v.data(), n * sizeof(T));
  v.resize(n);
}
template <class T>
void resize_on_huge_pages(std::vector<T>& v, size_t n, const T& value) {
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
  v.resize(n, value);
}

}  // namespace wfod
