// Removing the --report folders a stopped run created (report_stop.hpp). The signal handler
// may only use async-signal-safe calls: the paths live in static buffers, rmdir() removes
// only an empty folder, and the signal is raised again with its default action so the exit
// status says the run was interrupted (130 for SIGINT in a shell).

#include "report_stop.hpp"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace wfod::cli {

namespace {

constexpr size_t kMaxDirs = 16;
constexpr size_t kMaxPath = 4096;
char g_dirs[kMaxDirs][kMaxPath];
volatile std::sig_atomic_t g_count = 0;
volatile std::sig_atomic_t g_filled = 0;

void remove_dirs() {
  if (g_filled) return;
  for (std::sig_atomic_t i = 0; i < g_count; ++i) ::rmdir(g_dirs[i]);  // deepest first
  g_count = 0;
}

extern "C" void on_stop_signal(int sig) {
  remove_dirs();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install(int sig) {
  struct sigaction old {};
  if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) return;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
}

}  // namespace

void remember_created_report_dirs(const std::vector<std::string>& created) {
  g_count = 0;
  for (const std::string& d : created) {
    if (static_cast<size_t>(g_count) == kMaxDirs || d.size() >= kMaxPath) break;
    std::memcpy(g_dirs[g_count], d.c_str(), d.size() + 1);
    g_count = g_count + 1;
  }
  if (g_count > 0) {
    install(SIGINT);
    install(SIGTERM);
  }
}

void report_dir_filled() { g_filled = 1; }

void remove_unfilled_report_dirs() { remove_dirs(); }

}  // namespace wfod::cli
