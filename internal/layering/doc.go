// Package layering holds the test that keeps ARCHITECTURE.md's table of
// rooms true: every package of the module is in it, and imports only the
// rooms its row names (the arrows point down).
package layering
