package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/durasim/durasim/asynqchaos"
	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/internal/redistest"
	"github.com/durasim/durasim/reports"
)

// recordAsynq is `durasim report -record-asynq FILE [-asynq-kills N]`:
// the side-by-side report's asynq figures. asynq runs only as real
// processes on a redis-server, which `make report` does not start, so
// this runs one `chaos -target asynq` per asynq handler design, all with
// chaos's defaults but -kills N (a throwaway redis-server; the handlers'
// database is $DURASIM_PG_URL), and writes their reports as the JSON the
// report reads (reports.AsynqRecord), with the time and the command.
func recordAsynq(file string, kills int, args []string, stdout io.Writer) error {
	db := os.Getenv(pgtest.EnvURL)
	if db == "" {
		return usageErr("-record-asynq needs $%s: the handlers' PostgreSQL database (eval \"$(make -s pg-up)\")", pgtest.EnvURL)
	}
	c := asynqchaos.DefaultConfig()
	c.Kills, c.DB = kills, db
	if err := validateAsynq(&c); err != nil {
		return usageErr("%v", err)
	}
	if err := checkWritableDir(dirOf(file)); err != nil {
		return usageErr("invalid -record-asynq %q: %v", file, err)
	}
	srv, err := redistest.Start()
	if err != nil {
		return fmt.Errorf("no throwaway redis-server: %v", err)
	}
	defer srv.Stop()
	c.Redis = srv.Addr()
	rec := reports.AsynqRecord{Recorded: time.Now().UTC().Format(time.RFC3339), Command: "durasim report " + strings.Join(args, " "),
		Asynq: asynqchaos.Version()}
	for _, d := range asynqchaos.Designs() {
		rc := c
		rc.Design = d
		fmt.Fprintf(stdout, "asynq: design %s, %d kills...\n", d, kills)
		rep, err := asynqchaos.Run(context.Background(), rc)
		if err != nil {
			return fmt.Errorf("asynq design %s: %w", d, err)
		}
		rep.Print(stdout)
		rec.Runs = append(rec.Runs, reports.RecordAsynqRun(rc, rep))
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if _, err := reports.ParseAsynqRecord(data); err != nil {
		return err
	}
	if err := os.WriteFile(file, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", file)
	return nil
}

// dirOf is a file's directory ("." for a bare name).
func dirOf(file string) string {
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		return file[:i]
	}
	return "."
}
