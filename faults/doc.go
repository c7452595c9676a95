// Package faults holds the fault-injection tests of the whole service: the real binary is killed with SIGKILL
// during a poll cycle, a webhook delivery and a payment, then restarted on the same database, and the tests
// check that nothing recorded was lost, no event went undelivered and no payment was settled twice. The package
// has no code of its own.
package faults
