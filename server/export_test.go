package server

// HostAllowed exposes HostPolicy.allows to the tests.
func HostAllowed(p HostPolicy, hostport string) bool { return p.allows(hostport) }
func ETagMatches(values []string, tag string) bool   { return match(values, tag) != "" }
