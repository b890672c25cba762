package nats

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"sparrow"
)

// embeddedReadyTimeout bounds how long Open waits for the embedded server
// (which may have to recover its store) to accept connections.
const embeddedReadyTimeout = 30 * time.Second

// startEmbedded starts an in-process nats-server with JetStream, storing under
// dataDir and listening on no port: only this process connects to it, through
// nats.InProcessServer. One process at a time may use a given dataDir.
func startEmbedded(dataDir string, log *slog.Logger) (*server.Server, error) {
	srv, err := server.NewServer(&server.Options{
		ServerName: "sparrow-embedded",
		DontListen: true,
		JetStream:  true,
		StoreDir:   dataDir,
		NoSigs:     true,
	})
	if err != nil {
		return nil, sparrow.WrapError(sparrow.EInternal, err, "nats: configure the embedded server")
	}
	srv.SetLoggerV2(serverLogger{log}, false, false, false)
	srv.Start()
	if !srv.ReadyForConnections(embeddedReadyTimeout) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, sparrow.Errorf(sparrow.EUnavailable, "nats: the embedded server in %s did not start within %v", dataDir, embeddedReadyTimeout)
	}
	if !srv.JetStreamEnabled() {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, sparrow.Errorf(sparrow.EUnavailable, "nats: the embedded server in %s started without JetStream (see its log)", dataDir)
	}
	return srv, nil
}

// serverLogger adapts slog to the server's logger. Notices (the startup banner
// and the like) are logged at debug level so that the embedded server is quiet.
type serverLogger struct{ log *slog.Logger }

func (l serverLogger) Noticef(format string, v ...any) { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l serverLogger) Warnf(format string, v ...any)   { l.log.Warn(fmt.Sprintf(format, v...)) }
func (l serverLogger) Fatalf(format string, v ...any)  { l.log.Error(fmt.Sprintf(format, v...)) }
func (l serverLogger) Errorf(format string, v ...any)  { l.log.Error(fmt.Sprintf(format, v...)) }
func (l serverLogger) Debugf(format string, v ...any)  { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l serverLogger) Tracef(format string, v ...any)  { l.log.Debug(fmt.Sprintf(format, v...)) }
