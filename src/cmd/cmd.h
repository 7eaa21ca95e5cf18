/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the subcommands, as main.c dispatches them (one file each in
 * cmd/). Nothing outside cmd/ but main.c includes this header: a command
 * calls down into the layers below, never the other way
 * (docs/internals/CODEMAP.md). `pmaps demo` runs explain's report.
 */
#ifndef PMAPS_CMD_H
#define PMAPS_CMD_H

#include "common/tool.h"
#include "write/writer.h"

int cmd_maps(int argc, char **argv);
int cmd_pages(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_phys(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_wss(int argc, char **argv);
/* Explains T to standard output in FMT; returns an exit code. */
int explain_report(const struct target *t, enum fmt fmt, unsigned options, int verbose);

#endif
