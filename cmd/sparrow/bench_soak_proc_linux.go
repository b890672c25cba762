package main

import "syscall"

// serverSysProcAttr puts the soak's server process in its own process group
// (a terminal's Ctrl-C goes to the bench only, which then stops the server
// and cleans up) and has the kernel kill it if the bench dies first.
func serverSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
