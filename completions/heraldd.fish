# fish completion for heraldd (written by hand: heraldd parses its options itself)
complete -c heraldd -f
complete -c heraldd -l spool -r -a '(__fish_complete_directories)' -d 'The spool directory'
complete -c heraldd -l config -r -F -d 'The configuration file'
complete -c heraldd -l notifier -x -a 'libnotify console' -d 'Where popups go'
complete -c heraldd -l log-level -x -a 'trace debug info notice warning error critical' -d 'The log level'
complete -c heraldd -l probe -d 'Ask the bus and the notification server about themselves'
complete -c heraldd -l version -d 'Show the version'
complete -c heraldd -s h -l help -d 'Show help information'
