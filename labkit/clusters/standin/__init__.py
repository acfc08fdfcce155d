"""Stand-ins: wire-compatible test servers for engines that cannot run here, labelled as such in
every output and never used for a performance claim (see DESIGN.md, "Providers")."""
