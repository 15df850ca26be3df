// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A non-PIE process with known functions: prints their addresses, then waits. */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) int nopie_alpha(int x)
{
	asm volatile("" : "+r"(x));
	return x * 3;
}

__attribute__((noinline)) int nopie_beta(int x)
{
	asm volatile("" : "+r"(x));
	return x + nopie_alpha(x);
}

int main(void)
{
	printf("%lx %lx\n", (unsigned long)nopie_alpha, (unsigned long)nopie_beta);
	fflush(stdout);
	pause();
	return nopie_beta(1);
}
