#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sigma-cli's `check`, `convert` and `list` commands on the vendored pySigma, sigma-cli and
Elasticsearch backend (README.md), with no network: ATT&CK data from attack-extract.json (env
RG_ATTACK_DATA), its cache in a fresh directory. sigma-cli's own entry point also loads its
`analyze` and `plugin` commands, which need a pySigma module and network access these versions
do not have; the three commands used are sigma-cli's own.
Usage: run-sigma.py COMMAND ARGS... (PYTHONPATH: the three vendored trees)"""
import os
import tempfile

import click
from sigma.data import mitre_attack

mitre_attack.set_cache_dir(tempfile.mkdtemp(prefix="rg-sigma-"))
mitre_attack.set_url(os.environ["RG_ATTACK_DATA"])

from sigma.cli.check import check  # noqa: E402
from sigma.cli.convert import convert  # noqa: E402
from sigma.cli.list import list_group  # noqa: E402


@click.group()
def cli():
    pass


cli.add_command(check)
cli.add_command(convert)
cli.add_command(list_group)

if __name__ == "__main__":
    cli()
