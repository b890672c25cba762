// Package bench drives load against a Mastodon-API server and measures it:
// closed-loop with N clients, or open-loop at a fixed rate, with latencies in
// an HdrHistogram corrected for coordinated omission.
//
// The `sparrow bench` subcommands only parse their flags; each then calls
// one entry point here, which sets up the servers, drives them, writes the
// report and removes what it created (stores, MariaDB databases, Redis
// prefixes, NATS streams):
//
//   - RunSuite (`bench run`): generates a data set (GenerateDataset), loads
//     it into each backend (LoadDataset) and measures each feed mode on a
//     server in this process (DriveSuite); report.md, report.json, SVGs.
//   - RunSoak (`bench soak`): the same data set served by a child process
//     (the sparrow binary's serve), soaked open loop for a long time
//     (DriveSoak); soak.json, soak.md, soak.svg, server.log.
//   - RunStatuses, RunInteractions, RunRelations (`bench statuses`,
//     `interactions`, `relations`): smaller scenarios printed as a table
//     and optionally written as JSON.
//
// RunSuite and RunSoak can also drive a running server (Target, with an
// accounts file written by an earlier run, see WriteAccountsCSV). The
// building blocks (Client, ClosedLoop, OpenLoop, Workload, DriveSuite,
// DriveSoak, Report, SoakReport) serve other drivers as well.
package bench
