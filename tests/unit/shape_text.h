/* SPDX-License-Identifier: MIT */
/*
 * For unit tests: a shape as the text shape_format() writes ("(8, 128)"),
 * to compare with CHECK_STREQ. The commands have calc_shape() for this,
 * but it lives with the command code, which unit tests do not link.
 */
#ifndef PT_SHAPE_TEXT_H
#define PT_SHAPE_TEXT_H

#include <stdio.h>

#include "pt/block.h"
#include "pt/buf.h"

/* In one of eight static buffers that rotate, so that one CHECK can hold several. */
static const char *
shape_text(const struct shape *s)
{
	static char out[8][96];
	static int k;
	struct buf b = BUF_INIT;

	shape_format(s, &b);
	k = (k + 1) % 8;
	snprintf(out[k], sizeof(out[k]), "%s", b.data);
	buf_release(&b);
	return out[k];
}

#endif
