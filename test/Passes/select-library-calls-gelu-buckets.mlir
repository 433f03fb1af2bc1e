// RUN: graphc-opt %s --graphc-form-fusion-groups --graphc-select-library-calls=cudnn-gelu=true | FileCheck %s

// Buckets share the transposed weight: one constant of the same bytes.
// CHECK-LABEL: func.func @bucket_a
// CHECK: graph.constant {value = dense_resource<[[BLOB:conv_weight[_0-9]*]]> : tensor<16x1x1x8xf16>}
// CHECK-LABEL: func.func @bucket_b
// CHECK: graph.constant {value = dense_resource<[[BLOB]]> : tensor<16x1x1x8xf16>}
func.func @bucket_a(%x: tensor<2x8xf16>) -> tensor<2x16xf16> {
  %w = graph.constant {value = dense_resource<ffn_weight> : tensor<8x16xf16>} : () -> tensor<8x16xf16>
  %0 = graph.mat_mul %x, %w : (tensor<2x8xf16>, tensor<8x16xf16>) -> tensor<2x16xf16>
  %1 = graph.gelu %0 : (tensor<2x16xf16>) -> tensor<2x16xf16>
  return %1 : tensor<2x16xf16>
}
func.func @bucket_b(%x: tensor<4x8xf16>) -> tensor<4x16xf16> {
  %w = graph.constant {value = dense_resource<ffn_weight> : tensor<8x16xf16>} : () -> tensor<8x16xf16>
  %0 = graph.mat_mul %x, %w : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  %1 = graph.gelu %0 : (tensor<4x16xf16>) -> tensor<4x16xf16>
  return %1 : tensor<4x16xf16>
}

{-#
  dialect_resources: {
    builtin: {
      ffn_weight: "0x020000000000003C0040004200440045004600470048804800498049004A804A004B804B004C404C804CC04C004D404D804DC04D004E404E804EC04E004F404F804FC04F00502050405060508050A050C050E05000512051405160518051A051C051E05100522052405260528052A052C052E05200532053405360538053A053C053E0530054105420543054405450546054705480549054A054B054C054D054E054F0540055105520553055405550556055705580559055A055B055C055D055E055F0550056105620563056405650566056705680569056A056B056C056D056E056F0560057105720573057405750576057705780579057A057B057C057D057E057F057"
    }
  }
#-}
