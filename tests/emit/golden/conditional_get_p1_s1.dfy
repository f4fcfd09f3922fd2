// @dspec2test {"name": "Test_ConditionalGet_p1_s1", "method": "ConditionalGet", "file": "prog.dfy", "line": 1, "partition": 1, "scenario": 1, "label": "0 <= x < |s| && r == s[x]", "kind": "bva", "pin": "x == 0", "inputs": {"s": "[7]", "x": "0"}, "outputs": {"r": "7"}, "unique": false, "clauses": [2, 3, 4], "checks": [{"id": "c1", "kind": "ensures", "line": 2, "text": "x < 0 ==> r == -1"}, {"id": "c2", "kind": "ensures", "line": 3, "text": "x >= |s| ==> r == 1"}, {"id": "c3", "kind": "ensures", "line": 4, "text": "0 <= x < |s| ==> r == s[x]"}], "also": []}
// partition 1: 0 <= x < |s| && r == s[x]
// scenario 1 (bva): x == 0
method {:test} Test_ConditionalGet_p1_s1()
{
  print "\n[dspec2test:RUN] start Test_ConditionalGet_p1_s1\n";
  var s: seq<int> := [7];
  var x: int := 0;
  print "\n[dspec2test:RUN] call\n";
  var r := ConditionalGet(s, x);
  print "\n[dspec2test:RUN] returned\n";
  print "\n[dspec2test:RUN] actual r = ", r, "\n";
  if !(x < 0 ==> r == -1) { print "\n[dspec2test:RUN] fail c1\n"; if (x < 0) { print "\n[dspec2test:RUN] expected r = ", (-1), "\n"; } expect false, "dspec2test: ensures (line 2) violated: x < 0 ==> r == -1"; }
  if !(x >= |s| ==> r == 1) { print "\n[dspec2test:RUN] fail c2\n"; if (x >= |s|) { print "\n[dspec2test:RUN] expected r = ", (1), "\n"; } expect false, "dspec2test: ensures (line 3) violated: x >= |s| ==> r == 1"; }
  if !(0 <= x < |s| ==> r == s[x]) { print "\n[dspec2test:RUN] fail c3\n"; if (0 <= x < |s|) { print "\n[dspec2test:RUN] expected r = ", (s[x]), "\n"; } expect false, "dspec2test: ensures (line 4) violated: 0 <= x < |s| ==> r == s[x]"; }
  print "\n[dspec2test:RUN] done\n";
}
