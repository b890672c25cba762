// Command sparrow runs and administers a Sparrow server.
//
//	sparrow serve [--addr 127.0.0.1:8080] [--data ./data] [--config FILE] …
//
// Every flag can also come from the environment (SPARROW_ plus the flag name
// upper-cased with dashes as underscores, e.g. SPARROW_REDIS_URL) or from the
// config file (lines "name = value"). Precedence: flag, environment, file, default.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "sparrow",
		Short:         "Sparrow: a sharded microblog back end that speaks the Mastodon API",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCmd(), benchCmd(), versionCmd(), genCmd(), importCmd(), adminCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "sparrow:", err)
		os.Exit(1)
	}
}
