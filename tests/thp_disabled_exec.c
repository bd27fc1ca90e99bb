/* thp_disabled_exec.c CMD... - exec CMD with THP disabled for the process
 * (prctl PR_SET_THP_DISABLE), as a parent such as a service manager may leave
 * it: the switch is inherited across execve. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
		perror("SKIP: prctl(PR_SET_THP_DISABLE)");
		return 77;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
