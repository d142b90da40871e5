// Estate discovery's right to see one subscription: the built-in Reader role for the app's
// identity, at subscription scope. Azure Resource Graph answers a caller with what it may read,
// so this is what lets the discoverEstate timer find the App Service certificates, site bindings,
// Application Gateways, Front Door domains and Key Vaults of the subscription. Reader reads no
// secret and changes nothing.
targetScope = 'subscription'

@description('Principal (object) id of the app\'s user-assigned identity.')
param principalId string

// Built-in role definition ids (the same in every subscription).
var roles = {
  reader: 'acdd72a7-3385-48ef-bd42-f606fba81ae7'
}

// Subscription-wide read, at the subscription: Resource Graph shows only what its caller may read.
resource reader 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(subscription().id, principalId, roles.reader)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.reader)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}
