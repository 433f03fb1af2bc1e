// RUN: graphc-opt %s --split-input-file --verify-diagnostics

exec.plan @static attributes {arena_bytes = 0 : i64, input_types = [], intermediate_bytes = 0 : i64, output_types = []} {
  // expected-error @+1 {{copies 16 bytes into a slot of 8}}
  exec.copy <input, 0, 0, 16> to <output, 0, 0, 8>
}

// -----

// expected-error @+1 {{'exec.launch' op expects parent op 'exec.plan'}}
exec.launch @k []
