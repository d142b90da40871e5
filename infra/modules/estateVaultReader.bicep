// Estate discovery's right to list one vault's certificates: the built-in Key Vault Reader role
// for the app's identity on the vault. It reads certificates' metadata and policies (name,
// expiry, thumbprint, issuer, auto-renewal), never a secret's or a key's value.

@description('Name of the Key Vault (in the resource group this module is deployed to).')
param vaultName string

@description('Principal (object) id of the app\'s user-assigned identity.')
param principalId string

// Built-in role definition ids (the same in every subscription).
var roles = {
  keyVaultReader: '21090545-7ca7-4776-b22c-e363652d74d2'
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: vaultName
}

// The vault's certificates listed, with their policies: what the estate report says of each.
resource vaultReader 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, principalId, roles.keyVaultReader)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultReader)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}
