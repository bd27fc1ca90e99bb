/* san.h - the commands of the sanitizer drivers (san_units, san_tsan).
 * check.h's counter is per file: each command adds its own to san_failed. */
#ifndef SAN_H
#define SAN_H

extern int san_failed;
void san_quiet_say(void);       /* hp_say formats, but its lines are dropped */
void san_plan(void);            /* san_policy.c */
void san_probe(void);           /* san_policy.c */
void san_report(void);          /* san_report.c */
void san_tlb(void);             /* san_tlb.c */

#endif
