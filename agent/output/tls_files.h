/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The certificate files a TLS output names (?ca=, ?cert=, ?key=), checked when the output is
 * made: the same trust as the policy's (config/trust.h), as the files decide whom the alerts go to.
 */
#pragma once

#include "output.h"

/*
 * Opens each file the spec names and checks it: a regular file; never writable by group or
 * other (a substituted CA or key would redirect the alerts); when running as root, owned by root
 * and under root's directories (trust_open_file()). A key readable by group or other is a
 * warning. Logs "output NAME: key FILE: why" and returns a negative errno on the first refusal.
 */
int output_tls_files_check(const struct output_spec *sp);
