/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 against the FIPS 180-4 / NIST CAVP vectors (empty, "abc", the
 * two-block 448- and 896-bit messages, a million 'a'), plus split updates at
 * every offset of a message that crosses block boundaries, so the buffering
 * is exercised as much as the compression.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/sha256.h"
#include "test.h"

static void
check_vector(const char *msg, const char *want)
{
	char hex[SHA256_HEX_LEN + 1];

	sha256_hex(msg, strlen(msg), hex);
	CHECK_STREQ(hex, want);
}

int
main(void)
{
	static const char two_block[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static const char four_block[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		"hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	char hex[SHA256_HEX_LEN + 1], whole[SHA256_HEX_LEN + 1];
	struct sha256 h;
	char *million;

	check_vector("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_vector("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_vector(two_block, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_vector(four_block, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

	million = malloc(1000000);
	memset(million, 'a', 1000000);
	sha256_hex(million, 1000000, hex);
	CHECK_STREQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* the same million bytes in uneven pieces */
	sha256_init(&h);
	for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 3 % 1021 + 1)
		sha256_update(&h, million + off, off + step > 1000000 ? 1000000 - off : step);
	sha256_final_hex(&h, hex);
	CHECK_STREQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);

	/* every split point of a 112-byte message, and lengths around the padding edge */
	sha256_hex(four_block, strlen(four_block), whole);
	for (size_t cut = 0; cut <= strlen(four_block); cut++) {
		sha256_init(&h);
		sha256_update(&h, four_block, cut);
		sha256_update(&h, four_block + cut, strlen(four_block) - cut);
		sha256_final_hex(&h, hex);
		CHECK(strcmp(hex, whole) == 0);
	}
	/* 55, 56 and 64 bytes: one or two padding blocks (values from sha256sum) */
	check_vector("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		     "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check_vector("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		     "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	check_vector("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		     "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");

	CHECK(sha256_hex_valid("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015ad"));
	CHECK(!sha256_hex_valid("ba7816bf"));
	CHECK(!sha256_hex_valid("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ag"));
	CHECK(!sha256_hex_valid("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad0"));
	CHECK(!sha256_hex_valid(""));
	return TEST_DONE();
}
