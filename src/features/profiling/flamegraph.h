/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Folded stacks ("root;child;leaf VALUE" per line) and a self-contained
 * flame graph SVG rendered from them (no external tool).
 */
#ifndef ENAV_FEATURES_PROFILING_FLAMEGRAPH_H
#define ENAV_FEATURES_PROFILING_FLAMEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct enav_folded_stack {
	const char *const *frames; /* root first */
	size_t n_frames;
	uint64_t value;
};

/*
 * One line per stack, "root;child;leaf VALUE\n", in input order.  Inside a
 * frame name ';' becomes ':' and every ASCII control character (newlines,
 * tabs, DEL included) becomes '?', so each line stays one parseable line;
 * other bytes are written as they are (spaces too: readers split the value
 * off at the last space).  A NULL or empty frame name, and a stack with no
 * frames, is written as the frame "[unknown]"; a stack of value 0 still gets
 * its line.  0, -EINVAL (out NULL, stacks NULL with n > 0, frames NULL with
 * n_frames > 0: nothing written) or -EIO (a write failed).
 */
int enav_folded_write(FILE *out, const struct enav_folded_stack *stacks, size_t n);

struct enav_flamegraph_opts {
	const char *title; /* "CPU profile"; NULL = "Flame Graph" */
	const char *unit;  /* "samples", "nanoseconds"; NULL = "samples" */
	unsigned width;	   /* pixels, 0 = 1200; kept within 100..100,000 */
	size_t max_nodes;  /* cap on rendered rectangles, 0 = 50,000; narrow ones are merged */
};

/*
 * Merge the stacks into a tree and write an SVG document. 0 or -errno.
 *
 * Frames are named as in enav_folded_write ("[unknown]" for none, NULL or
 * empty); siblings are merged by exact name and ordered by name (strcmp), so
 * the same input gives the same bytes, and so does any order of the same
 * stacks as long as the node cap is not reached.  Stacks of value 0 are
 * skipped.  The tree holds at most max_nodes nodes (at least 2), the root
 * "all" included: once ordinary frames have used all but about an eighth of
 * them, the frames of a stack that would need a new node are counted in a
 * grey "[truncated]" child of the deepest frame of that stack already in
 * the tree, or of its nearest ancestor that has or can still get one (the
 * root always can), so every total stays exact.
 *
 * The document is SVG 1.1: the root at the bottom spanning width - 20 px,
 * 16 px per level, widths proportional to value, a warm colour per name
 * (hash of the name), each frame a <g> with <title>name (value unit,
 * pp.pp%)</title>, a <rect> and a <text> label: the name, or as much of it
 * as fits followed by ".." (about 7 px per character at 12 px), or nothing
 * when the name does not fit and fewer than 3 characters would.
 * Rectangles narrower than 0.1 px are left out with everything above them
 * (their parent still counts them).  All caller text is XML-escaped; bytes
 * that are not UTF-8 become U+FFFD and control characters '?', so the
 * document is always well-formed.  A small inline script zooms on click
 * (click the root or "Reset zoom" to go back) and highlights frames matching
 * a regular expression ("Search"); the static drawing needs none of it.  No
 * samples at all (n == 0 or every value 0) give a small document saying so.
 *
 * opts may be NULL (all defaults).  -EINVAL as for enav_folded_write,
 * -EOVERFLOW when the values add up past UINT64_MAX, -ENOMEM (these three
 * before anything is written) or -EIO.
 */
int enav_flamegraph_svg(FILE *out, const struct enav_folded_stack *stacks, size_t n,
			const struct enav_flamegraph_opts *opts);

#endif
