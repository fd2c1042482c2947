package main

// The queue systems compiled into the CLI: each registers itself
// (target.Register) from its package's init, and -target resolves its
// name; nothing else in the CLI's target path names one.
import (
	_ "github.com/durasim/durasim/target/goqitetarget"
	_ "github.com/durasim/durasim/target/rivertarget"
)
