// @dspec2test {"name": "Test_ConditionalGet_p1_s1", "method": "ConditionalGet", "file": "prog.dfy", "line": 1, "partition": 1, "scenario": 1, "label": "0 <= x < |s| && r == s[x]", "kind": "bva", "pin": "x == 0", "inputs": {"s": "[7]", "x": "0"}, "outputs": {"r": "7"}, "unique": false, "clauses": [2, 3, 4]}
// partition 1: 0 <= x < |s| && r == s[x]
// scenario 1 (bva): x == 0
method {:test} Test_ConditionalGet_p1_s1()
{
  var s: seq<int> := [7];
  var x: int := 0;
  var r := ConditionalGet(s, x);
  print "\n[dspec2test] actual r = ", r, "\n";
  expect x < 0 ==> r == -1, "dspec2test: ensures (line 2) violated: x < 0 ==> r == -1";
  expect x >= |s| ==> r == 1, "dspec2test: ensures (line 3) violated: x >= |s| ==> r == 1";
  expect 0 <= x < |s| ==> r == s[x], "dspec2test: ensures (line 4) violated: 0 <= x < |s| ==> r == s[x]";
}
