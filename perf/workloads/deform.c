/*
 * deform.c - Blender's geometry-nodes shape: per frame, allocate a positions
 * array (~50 MB of float xyz), copy the input mesh into it, deform it, free
 * it.  The copy into fresh memory is where first-touch faults cost (the
 * report where it ran 5x slower than it should).
 * usage: deform [--mib 50] [--frames 30]
 * prints: deform mib=M frames=F seconds=S ms_per_frame=X checksum=C
 */
#define _POSIX_C_SOURCE 200809L
#include "hp_clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t mib = 50;
	int frames = 30;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--mib") == 0)
			mib = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--frames") == 0)
			frames = atoi(argv[i + 1]);
		else
			goto usage;
	}
	if (mib == 0 || frames <= 0)
		goto usage;
	size_t n = (mib << 20) / (3 * sizeof(float));      /* vertices */
	float *input = malloc(n * 3 * sizeof(float));
	if (!input)
		return perror("malloc"), 1;
	for (size_t i = 0; i < n; i++) {
		input[3 * i] = (float)(i % 1000) * 0.01f;
		input[3 * i + 1] = (float)(i / 1000 % 1000) * 0.01f;
		input[3 * i + 2] = 0.0f;
	}
	double checksum = 0, t0 = hp_now();
	for (int f = 0; f < frames; f++) {
		float *pos = malloc(n * 3 * sizeof(float));
		if (!pos)
			return perror("malloc"), 1;
		memcpy(pos, input, n * 3 * sizeof(float));
		float phase = (float)f * 0.1f;
		for (size_t i = 0; i < n; i++)
			pos[3 * i + 2] += 0.1f * sinf(pos[3 * i] * 3.0f + phase);
		checksum += pos[3 * (n / 2) + 2];
		free(pos);
	}
	double s = hp_now() - t0;
	printf("deform mib=%zu frames=%d seconds=%.6f ms_per_frame=%.3f checksum=%.4f\n",
	       mib, frames, s, s * 1e3 / frames, checksum);
	free(input);
	return 0;
usage:
	fprintf(stderr, "usage: deform [--mib M] [--frames F]\n");
	return 2;
}
