# tests of cli (issue work in progress)
