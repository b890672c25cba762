package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// serverProcess is a `sparrow serve` child process: the server a soak
// measures, in its own process so that its memory is its own.
type serverProcess struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:PORT
	logPath string
	log     *os.File
	exited  chan struct{} // closed once the process has exited
	waitErr error         // its exit status, set before exited is closed

	stopOnce sync.Once
	stopNote string
}

// serverStartAttempts is how many free ports startServerProcess tries: a
// port found free can be taken before the child binds it.
const serverStartAttempts = 3

// startServerProcess runs bin with serve, args and --addr on a free loopback
// port, its output appended to logPath, and waits until GET /health answers
// 200 (at most healthTimeout). The child gets this process's environment
// without its SPARROW_* variables, so that args alone configure the server;
// on Linux it is in its own process group (a terminal's Ctrl-C reaches only
// the bench, which stops it) and is killed if the bench dies. If the child
// exits before it is healthy, the error quotes the end of its log; the
// caller must call stop once done with a started process.
func startServerProcess(ctx context.Context, bin string, args []string, logPath string, healthTimeout time.Duration) (*serverProcess, error) {
	var err error
	for attempt := 1; attempt <= serverStartAttempts; attempt++ {
		var p *serverProcess
		if p, err = tryServerProcess(ctx, bin, args, logPath, healthTimeout); err == nil {
			return p, nil
		}
		if !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return nil, err
}

func tryServerProcess(ctx context.Context, bin string, args []string, logPath string, healthTimeout time.Duration) (*serverProcess, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr}, args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = serverEnv(os.Environ())
	cmd.SysProcAttr = serverSysProcAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	p := &serverProcess{cmd: cmd, base: "http://" + addr, logPath: logPath, log: logf, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	if err := p.waitHealthy(ctx, healthTimeout); err != nil {
		p.stop(5 * time.Second)
		return nil, err
	}
	return p, nil
}

// freeLoopbackAddr returns a loopback address whose port was free a moment ago.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// serverEnv is env without the SPARROW_* variables, which `serve` would
// read as settings.
func serverEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "SPARROW_") {
			out = append(out, kv)
		}
	}
	return out
}

// waitHealthy polls GET /health until it answers 200, the process exits,
// ctx ends or timeout passes.
func (p *serverProcess) waitHealthy(ctx context.Context, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		if resp, err := client.Get(p.base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.exited:
			return fmt.Errorf("server exited before answering /health (%v); end of %s:\n%s", p.waitErr, p.logPath, p.logTail(2048))
		case <-ctx.Done():
			return fmt.Errorf("waiting for the server's /health: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server not healthy after %v; end of %s:\n%s", timeout, p.logPath, p.logTail(2048))
		}
	}
}

// logTail returns the last n bytes of the server's log.
func (p *serverProcess) logTail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	if b = bytes.TrimSpace(b); len(b) == 0 {
		return "(empty)"
	}
	return string(b)
}

// stop asks the server to shut down (SIGTERM, where signals exist), kills
// it if it has not exited after grace, and closes its log. It returns a note
// if the shutdown was not clean (killed, or a failed exit status), "" if it
// was. Calls after the first return the first one's note.
func (p *serverProcess) stop(grace time.Duration) string {
	p.stopOnce.Do(func() {
		defer p.log.Close()
		select {
		case <-p.exited:
			p.stopNote = fmt.Sprintf("the server had exited before the end of the run: %v", p.waitErr)
			return
		default:
		}
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			p.cmd.Process.Kill()
		}
		select {
		case <-p.exited:
			if p.waitErr != nil {
				p.stopNote = fmt.Sprintf("the server's shutdown failed: %v (see %s)", p.waitErr, p.logPath)
			}
		case <-time.After(grace):
			p.cmd.Process.Kill()
			<-p.exited
			p.stopNote = fmt.Sprintf("the server did not exit within %v of SIGTERM and was killed", grace)
		}
	})
	return p.stopNote
}

// errServerExited is the cause a soak's context is cancelled with when the
// server process dies under it.
var errServerExited = errors.New("the server process exited during the soak")

// watch cancels the soak (cancel) with errServerExited if the process exits
// before done is closed.
func (p *serverProcess) watch(done <-chan struct{}, cancel context.CancelCauseFunc) {
	go func() {
		select {
		case <-p.exited:
			cancel(fmt.Errorf("%w: %v; end of %s:\n%s", errServerExited, p.waitErr, p.logPath, p.logTail(2048)))
		case <-done:
		}
	}()
}
