// Package riverrepro reproduces, with River's public API alone (river.Client,
// riverdriver executors, rivermigrate) on SQLite, behaviours of River that
// durasim's -target river sweep found. It is a module of its own, outside
// durasim: its tests are the whole of it (see README.md).
package riverrepro
