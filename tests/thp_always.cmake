# tests of thp_always (issue work in progress)
