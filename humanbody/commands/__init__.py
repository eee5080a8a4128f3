"""One module per ``humanbody`` subcommand (see :mod:`humanbody.cli`)."""
