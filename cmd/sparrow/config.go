package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// applyEnvAndFile fills every flag not set on the command line from its
// SPARROW_* environment variable, then from the config file named by
// --config. The file holds "name = value" lines (flag names, '#' comments);
// it is parsed here in a dozen lines rather than with a configuration library
// because flags, environment and file all name the same settings.
func applyEnvAndFile(cmd *cobra.Command) error {
	fileVals := map[string]string{}
	if path, _ := cmd.Flags().GetString("config"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("config: %w", err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				return fmt.Errorf("config %s:%d: want name = value", path, n)
			}
			k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"`)
			if cmd.Flags().Lookup(k) == nil {
				return fmt.Errorf("config %s:%d: unknown setting %q", path, n, k)
			}
			fileVals[k] = v
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	var err error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if err != nil || fl.Changed {
			return
		}
		env := "SPARROW_" + strings.ToUpper(strings.ReplaceAll(fl.Name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok {
			if e := fl.Value.Set(v); e != nil {
				err = fmt.Errorf("%s: %w", env, e)
			}
			return
		}
		if v, ok := fileVals[fl.Name]; ok {
			if e := fl.Value.Set(v); e != nil {
				err = fmt.Errorf("config %s: %w", fl.Name, e)
			}
		}
	})
	return err
}
