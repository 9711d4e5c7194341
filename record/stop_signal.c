/* stop_signal.c - the SIGINT/SIGTERM stop flag (stop_signal.h). */
#include "record/stop_signal.h"
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

void stop_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool stop_requested(void)
{
	return stop_flag != 0;
}

void stop_request(void)
{
	stop_flag = 1;
}
