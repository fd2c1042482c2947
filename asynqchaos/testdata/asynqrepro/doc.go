// Package asynqrepro reproduces, with asynq's public API alone (Client,
// Server, Inspector) on a throwaway redis-server, behaviours of asynq
// that durasim's chaos -target asynq runs found. It is a module of its
// own, outside durasim: its tests are the whole of it (make asynq-repro).
package asynqrepro
