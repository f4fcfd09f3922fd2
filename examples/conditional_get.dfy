// The paper's running example: three postconditions, three equivalence classes.
method ConditionalGet(s: seq<int>, x: int) returns (r: int)
  ensures x < 0 ==> r == -1
  ensures x >= |s| ==> r == 1
  ensures 0 <= x < |s| ==> r == s[x]
{
  if x < 0 {
    r := -1;
  } else if x >= |s| {
    r := 1;
  } else {
    r := s[x];
  }
}

// A bug on purpose: for two or more elements it returns the one before the last.
method LastOrDefault(s: seq<int>, d: int) returns (r: int)
  ensures |s| == 0 ==> r == d
  ensures |s| > 0 ==> r == s[|s| - 1]
{
  if |s| == 0 {
    r := d;
  } else if |s| > 1 {
    r := s[|s| - 2];
  } else {
    r := s[|s| - 1];
  }
}
