"""The `arena` command line: thin click commands over the packages below (`main`, `bots`,
`tournaments`, `training`) and the benchmarks (`bench`, with the bots it measures in `benchbots/`).

The only package that imports click; it holds no game logic. It may import every other
package of `arena`.
"""
