/*
 * The sanitizers' settings for every fuzz build (the environment's ASAN_OPTIONS / UBSAN_OPTIONS still
 * add to them): a report ends the program with exit code 211, leaks are reported at exit, and an
 * allocation the allocator cannot serve is a report, not a NULL. A build may add its own
 * (-DFUZZ_ASAN_MORE='"..."'): the client's fuzzer forks a child per case, and a smaller quarantine keeps
 * each fork cheap.
 */
#ifdef FUZZ_ASAN_MORE
#define ASAN_MORE ":" FUZZ_ASAN_MORE
#else
#define ASAN_MORE ""
#endif

const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

const char *__asan_default_options(void) {
    return "exitcode=211:detect_leaks=1:abort_on_error=0:allocator_may_return_null=0:handle_abort=1" ASAN_MORE;
}

const char *__ubsan_default_options(void) { return "print_stacktrace=1:halt_on_error=1:exitcode=211"; }
