/* fuzz.h — shared by the libFuzzer harnesses in fuzz/ (docs/fuzzing.md).
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput for one component that
 * reads hostile bytes. A property violation (a round trip that does not hold,
 * a verdict that contradicts itself) calls FUZZ_CHECK, which aborts so that
 * libFuzzer records the input. Seeds are extracted from corpus/ and
 * suite/data at run time (fuzz/seed_extract.c), never copied into the tree. */
#ifndef GT_FUZZ_H
#define GT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond, what)                                                                                         \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "fuzz property violated: %s (%s:%d)\n", what, __FILE__, __LINE__);                         \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
