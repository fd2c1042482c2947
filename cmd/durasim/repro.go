package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/sim"
)

// reproducer is how this command's failures print their commands: as the
// user runs durasim where they are (go run at the checkout's root, else
// this binary as they ran it), reading the -repro file the configuration
// came from, and writing a repro file into dir when a configuration has a
// setting no flag sets ("": none is written).
func (f *simFlags) reproducer(dir string) *sim.Reproducer {
	cli := repro.SelfCLI(sim.CLIProg)
	rp := &sim.Reproducer{CLI: cli.Command, Install: cli.Install}
	if f != nil && f.repro != "" {
		rp.Base = &sim.ReproBase{File: f.repro, Config: f.reproCfg, Seed: f.reproSeed}
	}
	if dir != "" {
		rp.Save = func(name string, cfg sim.Config, seed uint64) (string, error) {
			path := filepath.Join(dir, name+".repro")
			return path, writeReproFile(path, cfg, seed)
		}
	}
	return rp
}

// writeReproFile writes the repro file of cfg on seed to path.
func writeReproFile(path string, cfg sim.Config, seed uint64) error {
	var b bytes.Buffer
	notes := []string{
		fmt.Sprintf("durasim repro file: seed %d, written by durasim beside its other output", seed),
		"replay it with: durasim replay -repro " + path,
	}
	if err := sim.WriteRepro(&b, cfg, seed, repro.Version(sim.CLIProg.Module), notes...); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
