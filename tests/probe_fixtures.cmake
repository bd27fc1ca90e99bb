# tests of probe_fixtures (issue work in progress)
