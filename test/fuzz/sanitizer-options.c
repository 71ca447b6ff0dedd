/*
 * The sanitizers' settings for every fuzz build (the environment's ASAN_OPTIONS / UBSAN_OPTIONS still
 * add to them): a report ends the program with exit code 211, leaks are reported at exit, and an
 * allocation the allocator cannot serve is a report, not a NULL.
 */
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

const char *__asan_default_options(void) {
    return "exitcode=211:detect_leaks=1:abort_on_error=0:allocator_may_return_null=0:handle_abort=1";
}

const char *__ubsan_default_options(void) { return "print_stacktrace=1:halt_on_error=1:exitcode=211"; }
