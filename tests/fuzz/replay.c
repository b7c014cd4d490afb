/* SPDX-License-Identifier: MIT */
/*
 * A main() for the fuzz harnesses without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file named on the command line, so
 * tests/fuzz/run.sh can replay the regression inputs with any compiler and
 * the sanitizers of the build under test. A broken invariant aborts, as it
 * does under libFuzzer.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "pt/buf.h"
#include "pt/util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int
main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct buf b = BUF_INIT;
		struct pt_err err = PT_ERR_INIT;

		if (util_read_file(argv[i], &b, 64u << 20, &err) < 0) {
			fprintf(stderr, "replay: %s\n", err.msg);
			return 2;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)b.data, b.len);
		buf_release(&b);
		printf("replayed %s\n", argv[i]);
	}
	return 0;
}
