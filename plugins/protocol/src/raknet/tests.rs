//! Client state-machine tests driven by hand-built server datagrams.
