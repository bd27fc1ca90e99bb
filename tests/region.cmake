# tests of region (issue work in progress)
