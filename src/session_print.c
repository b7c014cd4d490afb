/* SPDX-License-Identifier: MIT */
/* Presenting a session to people; see pt/session_print.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/jaxapi.h"
#include "pt/ladder.h"
#include "pt/session_print.h"
#include "pt/snippet.h"
#include "pt/term.h"
#include "pt/xalloc.h"

void
session_print_rung(FILE *out, const struct session *s, const struct ruleset *rs,
		   const struct rung *r)
{
	bool filled = false;
	struct api_render ar;
	char *change, *sentence;

	ladder_render_init(&ar, rs, &s->vars);
	change = ladder_change_render(&ar, r, &s->vars, &filled);
	fprintf(out, "\nattempt %zu of %d: %s", s->nattempts + 1, SESSION_ATTEMPT_CAP, r->id);
	if (r->family)
		fprintf(out, " (family %s)", r->family);
	fprintf(out, "\n  action  %s\n", r->action ? api_render_prose(&ar, r->action) : "");
	/* code as code: never wrapped inside, several lines as lines (pt/snippet.h) */
	if (*change)
		snippet_print(out, "  change  ", change, filled ? "   (from your log)" : NULL, 4);
	if (r->expect)
		fprintf(out, "  expect  %s\n", api_render_prose(&ar, r->expect));
	for (char **f = r->flags; f && *f; f++) {
		const struct flag_def *fd = ruleset_find_flag(rs, *f);
		char *snippet = fd ? ladder_flag_render(&ar, fd, &s->vars) : xstrdup(*f);

		snippet_print(out, "  debug   ", snippet, NULL, 4);
		free(snippet);
	}
	for (size_t i = 0; i < ar.nnotes; i++)
		fprintf(out, "  note    %s\n", ar.notes[i]);
	/* each rung is its own screen in a walk, so the version is said where it matters */
	if (!ar.known && (sentence = ladder_api_sentence(&ar))) {
		fprintf(out, "  note    %s\n", sentence);
		free(sentence);
	}
	api_render_release(&ar);
	free(change);
}

/* A flag's snippet on a line of its own, spelled for ar; nothing if the rules lack it. */
static void
print_flag_line(FILE *out, const struct ruleset *rs, struct api_render *ar, const char *id,
		const char *before, const struct vars *vs)
{
	const struct flag_def *fd = ruleset_find_flag(rs, id);
	char *snippet;

	if (!fd)
		return;
	snippet = ladder_flag_render(ar, fd, vs);
	fputs(before, out);
	snippet_print(out, "      ", snippet, NULL, 6);
	free(snippet);
}

void
session_print_interpret(FILE *out, const struct ruleset *rs, const struct session *s, bool again)
{
	enum pt_class c = s->cls;
	bool gpu = vars_is(&s->vars, "platform", "gpu");
	/* GPU interpret mode simulates Mosaic GPU kernels; Triton has only interpret=True */
	bool gpu_sim = gpu && !vars_is(&s->vars, "backend", "triton");
	struct api_render ar;

	ladder_render_init(&ar, rs, &s->vars);
	fputs(again ? "\nthe failure changed class: does the new one reproduce under interpret mode?\n"
		    : "\nbefore any edit: does the failure reproduce under interpret mode?\n", out);
	fputs("  It splits the problem: a failure that reproduces there is a logic or indexing\n"
	      "  bug, or a race; one that does not is layout, capacity or precision.\n", out);
	/* an unmet wait polls for ever in the simulator too: the timeout ends it */
	if (c == CLASS_SYNCHRONIZATION && !gpu)
		print_flag_line(out, rs, &ar, "tpu-interpret", "  For a synchronization failure run "
				"the TPU simulation with the race detector,\n  under 'pallas-triage run "
				"--timeout' (a hang stays a hang there):\n", &s->vars);
	else if (c == CLASS_SYNCHRONIZATION && gpu_sim)
		print_flag_line(out, rs, &ar, "gpu-interpret", "  For a synchronization failure run "
				"GPU interpret mode (Mosaic GPU kernels) with the race\n  detector, under "
				"'pallas-triage run --timeout':\n", &s->vars);
	else
		print_flag_line(out, rs, &ar, "interpret", "  Run the kernel as plain XLA, without "
				"the Mosaic or Triton lowering:\n", &s->vars);
	if (!gpu || gpu_sim)
		print_flag_line(out, rs, &ar, gpu ? "gpu-interpret-reset" : "interpret-reset",
				"  Between runs reset the simulated state, or state from one run leaks "
				"into the next:\n", &s->vars);
	for (size_t i = 0; i < ar.nnotes; i++)
		fprintf(out, "  note: %s\n", ar.notes[i]);
	api_render_release(&ar);
}

void
session_print_no_interpret(FILE *out, const struct ruleset *rs, const struct session *s)
{
	enum pt_class c = s->cls;
	const struct class_def *cd = c < CLASS_COUNT && rs->have_class[c] ? &rs->classes[c] : NULL;

	if (s->status != SESSION_IN_PROGRESS || s->interp != INTERP_UNASKED ||
	    session_interpret_applies(s, rs) || !cd || s->cls == CLASS_UNKNOWN)
		return;
	/* said once, when the walk comes to the class: not again before each rung */
	if (s->nattempts ? s->attempts[s->nattempts - 1].cls_before == c : s->nskipped > 0)
		return;
	fprintf(out, "\nno interpret-mode question: interpret mode cannot tell anything about %s "
		"('pallas-triage explain %s' says why)\n", class_name(c), class_name(c));
}

/* On no ladder: what the rules say to capture for a failure they cannot name. */
static void
print_off_ladder(FILE *out, const struct ruleset *rs)
{
	const struct class_def *cd = rs->have_class[CLASS_UNKNOWN] ? &rs->classes[CLASS_UNKNOWN] : NULL;

	fputs("next: the last log shows no failure the rules can name, so no rung fits; the "
	      "session waits for the next log (recorded as an attempt off the ladder)\n", out);
	for (char **n = cd ? cd->next_steps : NULL; n && *n; n++) {
		fputs("  - ", out);
		term_puts_untrusted(out, *n);
		fputc('\n', out);
	}
}

void
session_print_next(FILE *out, const struct session *s, const struct ruleset *rs,
		   const struct session_news *nw)
{
	const struct rung *r;

	if (s->status != SESSION_IN_PROGRESS)
		return;
	if (session_interpret_applies(s, rs) && (!nw || (nw->flags & NEWS_CLASS))) {
		session_print_interpret(out, rs, s, session_class_changed(s));
		fputs("  answer with 'pallas-triage attempt --interpret yes|no|skip' (a walk asks "
		      "it itself)\n", out);
	}
	if ((r = session_next_rung(s, rs))) {
		fputs("next:", out);
		session_print_rung(out, s, rs, r);
	} else if (session_off_ladder(s)) {
		print_off_ladder(out, rs);
	}
}

void
session_print_news(FILE *out, const struct session_news *nw)
{
	for (size_t i = 0; i < nw->n; i++) {
		fputs("  * ", out);
		term_puts_untrusted(out, nw->msg[i]);
		fputc('\n', out);
	}
}

void
session_print_opened(FILE *out, const char *dir, const struct session *s,
		     const struct session_opened *o)
{
	if (o->resumed)
		fprintf(out, "resuming the session for this failure: %zu of %d attempts used\n",
			s->nattempts, SESSION_ATTEMPT_CAP);
	if (o->archived) {
		fprintf(out, "the session in %s was for %s failure (%s); it is kept as ", dir,
			o->archived_other ? "another" : "an earlier",
			session_status_name(o->archived_status));
		term_puts_untrusted(out, o->archived);
		fputs(" ('pallas-triage session restore' brings it back)\n", out);
	}
	if (o->pre_debug == PRE_DEBUG_NONE)
		return;
	fputs(o->pre_debug == PRE_DEBUG_KEPT ? "kept the existing "
					     : "saved the kernel as it is now to ", out);
	term_puts_untrusted(out, s->pre_debug);
	fputs(o->pre_debug == PRE_DEBUG_KEPT ? ": a pre-debug copy is never overwritten\n" : "\n",
	      out);
}

void
session_print_closing(FILE *out, const struct session *s)
{
	if (s->status == SESSION_IN_PROGRESS)
		return;
	if (s->status == SESSION_RESOLVED)
		fprintf(out, "\nthe failure is fixed after %zu attempt%s\n", s->nattempts,
			s->nattempts == 1 ? "" : "s");
	else
		fprintf(out, "\nthe walk stops here without a fix, after %zu of %d attempts\n",
			s->nattempts, SESSION_ATTEMPT_CAP);
	if (s->report_md) {
		fputs("escalation report: ", out);
		term_puts_untrusted(out, s->report_md);
		fputs(" and ", out);
		term_puts_untrusted(out, s->report_json);
		fputc('\n', out);
	} else {
		fputs("'pallas-triage report' writes the report of this session\n", out);
	}
}
