# tests of package (issue work in progress)
