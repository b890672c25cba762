package bench

import "syscall"

// serverSysProcAttr puts the soak's server process in its own process group
// (a terminal's Ctrl-C goes to the bench only, which then stops the server
// and cleans up) and asks the kernel to kill it if the bench dies first.
// (Linux sends that signal when the OS thread that started the child ends,
// which for a Go program is usually, not always, the process ending: the
// bench also stops the server itself on every way out it controls.)
func serverSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
