// Worker threads the engine starts (the CPU backend's pools, PBO's splits): what happens
// when the operating system refuses one (ulimit -u, address space). The work then runs on
// the threads that did start, the caller's included, with the same results; the handler
// set here is told, so an application can warn. Without a handler the shortfall is silent.
#pragma once

namespace wfod {

// wanted: threads the pool asked for, the caller's included; started: those it runs on;
// reason: the refusal's text. Called on the thread that asked for the pool.
using ThreadShortfallHandler = void (*)(int wanted, int started, const char* reason);
void set_thread_shortfall_handler(ThreadShortfallHandler handler);

}  // namespace wfod
