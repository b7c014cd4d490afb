/* SPDX-License-Identifier: MIT */
/*
 * The rule-pack subcommands of the `rules` group (src/cmd_rules_packs.c):
 * `rules fetch`, `rules sources`, `rules update`, `rules remove`. They are
 * listed in rules_sub[] of src/cmd_rules.c.
 */
#ifndef PT_CMD_PACKS_H
#define PT_CMD_PACKS_H

struct cmd_entry;

extern const struct cmd_entry cmd_rules_fetch_entry;
extern const struct cmd_entry cmd_rules_remove_entry;
extern const struct cmd_entry cmd_rules_sources_entry;
extern const struct cmd_entry cmd_rules_update_entry;

#endif
