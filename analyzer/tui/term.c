/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * term.c — the terminal: curses started with colours, and restored however
 * the view ends: q, end of input after q, SIGINT, SIGTERM, SIGHUP (they set
 * tui_quit_sig for the loop), and crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT: the terminal is reset from the handler, then the signal goes on
 * to its previous handler, so core dumps and sanitizer reports still happen).
 */
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>
#include "view.h"

volatile sig_atomic_t tui_quit_sig;
static int tty_saved, curses_on;
static struct termios tty_mode;
static char reset_seq[128];
static size_t reset_len;
static struct sigaction old_crash[5];
static const int crash_sigs[5] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static struct sigaction old_int, old_term, old_hup;
static const char *clear_seq;   /* without an alternate screen: cleared on the way out */

static void on_quit(int sig)
{
	tui_quit_sig = sig;
}

/* Async-signal-safe: write(2) and tcsetattr(3) only. */
static void on_crash(int sig)
{
	if (curses_on) {
		if (reset_len)
			(void)!write(STDOUT_FILENO, reset_seq, reset_len);
		if (tty_saved)
			tcsetattr(STDIN_FILENO, TCSANOW, &tty_mode);
		curses_on = 0;
	}
	for (int i = 0; i < 5; i++)
		if (crash_sigs[i] == sig)
			sigaction(sig, &old_crash[i], NULL);
	raise(sig);
}

static void add_cap(const char *name)
{
	const char *s = tigetstr((char *)name);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (reset_len + n < sizeof reset_seq) {
		memcpy(reset_seq + reset_len, s, n);
		reset_len += n;
	}
}

static const char *cap(const char *name)
{
	const char *s = tigetstr((char *)name);

	return s && s != (char *)-1 && *s ? s : NULL;
}

/* A terminal without an alternate screen (vt100, the Linux console) would
 * keep the view's rows, at whatever size it last had: clear it. */
static void curses_end(void)
{
	if (curses_on) {
		endwin();
		if (clear_seq) {
			putp(clear_seq);
			fflush(stdout);
		}
		curses_on = 0;
	}
}

static void colours(struct tui *v)
{
	const char *nc = getenv("NO_COLOR");

	/* https://no-color.org: set and not empty, no colour (bold and reverse stay) */
	if (!has_colors() || (nc && *nc))
		return;
	start_color();
	use_default_colors();
	init_pair(P_TITLE, COLOR_CYAN, -1);
	init_pair(P_WARN, COLOR_YELLOW, -1);
	init_pair(P_BAD, COLOR_RED, -1);
	init_pair(P_GOOD, COLOR_GREEN, -1);
	init_pair(P_INFO, COLOR_CYAN, -1);
	init_pair(P_ICRC, COLOR_MAGENTA, -1);
	init_pair(P_DIM, COLOR_BLUE, -1);
	v->color = 1;
}

static void quit_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_quit;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
}

/* What resets the terminal from a crash handler, and the handlers. */
static void crash_signals(void)
{
	struct sigaction sa;

	reset_len = 0;
	add_cap("sgr0");
	add_cap("cnorm");
	add_cap("rmcup");
	if (clear_seq)
		add_cap("clear");
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_crash;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (int i = 0; i < 5; i++)
		sigaction(crash_sigs[i], &sa, &old_crash[i]);
}

const char *tui_unusable(void)
{
	const char *t = getenv("TERM");
	int err = 0;

	if (!t || !*t)
		return "TERM is not set";
	if (!strcmp(t, "dumb"))
		return "TERM=dumb cannot draw it";
	/* what initscr() would die of, asked without dying */
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return err == 0 ? "the terminal type in TERM cannot draw it" : "TERM names a terminal type this system does not know";
	if (!tigetstr("cup") || tigetstr("cup") == (char *)-1) {
		del_curterm(cur_term);
		return "TERM names a terminal that cannot move its cursor";
	}
	del_curterm(cur_term);
	return NULL;
}

int term_start(struct tui *v)
{
	const char *cs;

	/* wide characters without touching number formatting */
	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	v->utf8 = cs && !strcmp(cs, "UTF-8");
	tty_saved = tcgetattr(STDIN_FILENO, &tty_mode) == 0;
	quit_signals();
	if (!initscr()) {
		fprintf(stderr, "rocetop: cannot start the terminal view\n");
		return -1;
	}
	curses_on = 1;
	clear_seq = cap("rmcup") ? NULL : cap("clear");
	atexit(curses_end);
	crash_signals();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	colours(v);
	return 0;
}

void term_stop(void)
{
	curses_end();
	for (int i = 0; i < 5; i++)
		sigaction(crash_sigs[i], &old_crash[i], NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
}
