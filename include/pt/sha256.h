/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4), self-contained: rule packs are pinned and checked
 * with it, and libcurl does not expose one. Not constant-time and not meant
 * for secrets; it hashes public data.
 *
 *	struct sha256 h;
 *	char hex[SHA256_HEX_LEN + 1];
 *
 *	sha256_init(&h);
 *	sha256_update(&h, data, len);   (any number of times)
 *	sha256_final_hex(&h, hex);
 */
#ifndef PT_SHA256_H
#define PT_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32       /* bytes of a digest */
#define SHA256_HEX_LEN 64   /* lowercase hex digits of a digest */

struct sha256 {
	uint32_t state[8];
	uint64_t nbytes;        /* message length so far */
	unsigned char block[64];
	size_t fill;            /* bytes waiting in block */
};

void sha256_init(struct sha256 *h);
void sha256_update(struct sha256 *h, const void *data, size_t len);
/* Finish and write the digest; h must be re-initialised before reuse. */
void sha256_final(struct sha256 *h, unsigned char out[SHA256_LEN]);
/* Finish and write 64 lowercase hex digits and a NUL into out. */
void sha256_final_hex(struct sha256 *h, char out[SHA256_HEX_LEN + 1]);
/* One call: the hex digest of data[0..len). */
void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN + 1]);

/* True when s is exactly 64 hex digits (either case). */
bool sha256_hex_valid(const char *s);

#endif
