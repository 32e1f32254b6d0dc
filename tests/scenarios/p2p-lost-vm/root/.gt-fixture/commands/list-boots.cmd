journalctl --list-boots -o json --no-pager -q
