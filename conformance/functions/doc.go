// Package functions runs the Substrait specification's function test cases
// (the .test files shipped with the spec module that substrait-go pins)
// through rigel's consumer: each case becomes a small Substrait plan (its
// arguments in a one-row VirtualTable, the call projected over field
// references; aggregate cases aggregate a VirtualTable), which is encoded to
// protobuf and run by substrait.Load -> translate.Translate ->
// physical.Executor on a device. The outcome of every case is pass, fail (a
// wrong answer), unsupported (rigel refused it, with the reason) or skipped
// (the pinned parser cannot read the file).
//
// The cases run on any gpu.Device; the test and `rigel conformance` use the
// plain-Go host device so that they run everywhere.
package functions
