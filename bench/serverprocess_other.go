//go:build !linux

package bench

import "syscall"

// serverSysProcAttr is the default elsewhere: the server process shares the
// bench's process group, so a terminal's Ctrl-C reaches both.
func serverSysProcAttr() *syscall.SysProcAttr { return nil }
