/*
 * Counting allocations, for the checks that stepping a world (or predicting
 * one) allocates nothing: a program linked with -Wl,--wrap=malloc (GNU ld,
 * lld) has every call to malloc go through __wrap_malloc, and
 * ALLOC_COUNT_WRAP(void *, malloc, (size_t n), (n)) defines that wrapper: it
 * counts the call in alloc_count while alloc_counting is set, then calls the
 * real function.
 *
 * Include it in one file of the program only, and instantiate exactly the
 * wraps its link line asks for (a wrapper without its --wrap leaves
 * __real_<name> undefined).
 */
#ifndef RS_ALLOC_COUNT_H
#define RS_ALLOC_COUNT_H

static volatile int alloc_counting;
static volatile unsigned long alloc_count;

#define ALLOC_COUNT_WRAP(ret, name, params, args) \
    ret __real_##name params;                     \
    ret __wrap_##name params;                     \
    ret __wrap_##name params                      \
    {                                             \
        if (alloc_counting)                       \
            alloc_count++;                        \
        return __real_##name args;                \
    }

/* The three every allocation check wraps (-Wl,--wrap=malloc,--wrap=calloc,
 * --wrap=realloc). */
#define ALLOC_COUNT_WRAP_MALLOC_CALLOC_REALLOC                            \
    ALLOC_COUNT_WRAP(void *, malloc, (size_t n), (n))                    \
    ALLOC_COUNT_WRAP(void *, calloc, (size_t n, size_t size), (n, size)) \
    ALLOC_COUNT_WRAP(void *, realloc, (void *p, size_t n), (p, n))

#endif
