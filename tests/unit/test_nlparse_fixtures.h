/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fixture tests of test_nlparse.c: filled in once replies are recorded. */
#define FIXTURE_TESTS
